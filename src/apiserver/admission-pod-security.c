/* admission-pod-security.c: Pod Security Admission as k8s.io/pod-security-admission v0.33
 * (kube-apiserver 1.33) decides it: the namespace labels (api/helpers.go), the baseline and
 * restricted checks with their versions and messages (policy/check_*.go, registry.go), the
 * decisions on pods and namespaces (admission/admission.go) and the glue to the registry.
 * Pod controllers (workloads) do not exist in flexlet, so ValidatePodController has no
 * counterpart; the exemptions of AdmissionConfiguration are not configurable (none). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/sysctl.h"
#include "apiserver/admission-pod-security.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/metrics.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "base/utf8.h"
#include "store/store.h"

/* K8S: admission.go defaultNamespaceMaxPodsToCheck and defaultNamespacePodCheckTimeout. */
#define NAMESPACE_MAX_PODS_TO_CHECK    3000
#define NAMESPACE_POD_CHECK_TIMEOUT_MS 1000

static const char *const level_names[PSA_LEVEL_MAX] = {
        [PSA_LEVEL_PRIVILEGED] = "privileged",
        [PSA_LEVEL_BASELINE] = "baseline",
        [PSA_LEVEL_RESTRICTED] = "restricted",
};

static const char *const mode_names[PSA_MODE_MAX] = {
        [PSA_MODE_ENFORCE] = "enforce",
        [PSA_MODE_AUDIT] = "audit",
        [PSA_MODE_WARN] = "warn",
};

const char *psa_level_to_string(enum psa_level l)
{
        return l < PSA_LEVEL_MAX ? level_names[l] : "";
}

const char *psa_mode_to_string(enum psa_mode m)
{
        return m < PSA_MODE_MAX ? mode_names[m] : "";
}

static void version_string(long long minor, char *buf, size_t size)
{
        if (minor == PSA_VERSION_LATEST)
                (void) snprintf(buf, size, "latest");
        else
                (void) snprintf(buf, size, "v1.%lld", minor);
}

const char *psa_level_version_string(const struct psa_level_version *lv,
                                     char buf[static PSA_LEVEL_VERSION_STRING_MAX])
{
        char v[32];

        version_string(lv->minor, v, sizeof(v));
        (void) snprintf(buf, PSA_LEVEL_VERSION_STRING_MAX, "%s:%s", psa_level_to_string(lv->level),
                        v);
        return buf;
}

/* ---- small string lists (Go slices and sets.String) ---- */

struct strlist {
        char **v;
        size_t n, alloc;
};

static void strlist_push(struct strlist *l, const char *s)
{
        if (l->n == l->alloc) {
                l->alloc = l->alloc ? 2 * l->alloc : 8;
                l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
        }
        l->v[l->n++] = xstrdup(s);
}

static bool strlist_has(const struct strlist *l, const char *s)
{
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->v[i], s))
                        return true;
        return false;
}

/* sets.String.Insert: no duplicates. */
static void strset_insert(struct strlist *l, const char *s)
{
        if (!strlist_has(l, s))
                strlist_push(l, s);
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* sets.String.List and sort.Strings: byte order, as Go compares strings. */
static void strlist_sort(struct strlist *l)
{
        if (l->n > 1)
                qsort(l->v, l->n, sizeof(*l->v), cmp_str);
}

static void strlist_release(struct strlist *l)
{
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i]);
        free(l->v);
        *l = (struct strlist){ 0 };
}

/* K8S: policy/helpers.go joinQuote: "a", "b" (no escaping, as upstream). */
static void add_join_quote(struct strbuf *sb, const struct strlist *l)
{
        for (size_t i = 0; i < l->n; i++)
                strbuf_addf(sb, "%s\"%s\"", i ? ", " : "", l->v[i]);
}

static void add_join(struct strbuf *sb, const struct strlist *l, const char *sep)
{
        for (size_t i = 0; i < l->n; i++)
                strbuf_addf(sb, "%s%s", i ? sep : "", l->v[i]);
}

static const char *pluralize(const char *singular, const char *plural, size_t n)
{
        return n == 1 ? singular : plural;
}

/* "container \"a\"" / "containers \"a\", \"b\"": the setter phrase of many checks. */
static void add_containers(struct strbuf *sb, const struct strlist *names)
{
        strbuf_addf(sb, "%s ", pluralize("container", "containers", names->n));
        add_join_quote(sb, names);
}

/* Pushes `containers "a", "b"` onto setters when there are any names. */
static void push_containers(struct strlist *setters, const struct strlist *names)
{
        struct strbuf sb;

        if (!names->n)
                return;
        strbuf_init(&sb);
        add_containers(&sb, names);
        strlist_push(setters, sb.buf);
        strbuf_release(&sb);
}

/* ---- the pod as the checks read it, decoded once ---- */

/* A *bool of the Go types: unset (absent or null), false or true. */
enum tri {
        TRI_UNSET,
        TRI_FALSE,
        TRI_TRUE,
};

static enum tri tri_of(const json_t *v)
{
        return json_is_true(v) ? TRI_TRUE : json_is_false(v) ? TRI_FALSE : TRI_UNSET;
}

/* A pointer-to-struct field: the object, or NULL when absent or null. */
static const json_t *obj_of(const json_t *parent, const char *key)
{
        const json_t *v = json_object_get(parent, key);

        return json_is_object(v) ? v : NULL;
}

/* A string field: its value, "" when absent or null (Go's zero value). */
static const char *str_of(const json_t *parent, const char *key)
{
        const char *s = json_string_value(json_object_get(parent, key));

        return s ? s : "";
}

/* A SecurityContext or PodSecurityContext: the fields the checks read. */
struct psa_security {
        bool present;
        enum tri privileged, allow_privilege_escalation, run_as_non_root, host_process;
        bool run_as_user_set;
        json_int_t run_as_user;
        const json_t *capabilities; /* object or NULL */
        const char *proc_mount;     /* NULL: unset */
        const json_t *seccomp;      /* object or NULL */
        const json_t *apparmor;     /* object or NULL */
        const json_t *selinux;      /* object or NULL */
};

struct psa_container {
        const char *name;
        const char *image;
        const json_t *ports;
        struct psa_security sc;
};

struct psa_pod {
        const json_t *annotations; /* object or NULL */
        bool host_network, host_pid, host_ipc, windows;
        struct psa_security sc;
        const json_t *sysctls;            /* array or NULL */
        const json_t *volumes;            /* array or NULL */
        struct psa_container *containers; /* init, regular, then ephemeral: visitContainers */
        size_t n_containers;
};

static void security_decode(const json_t *sc, struct psa_security *ret)
{
        const json_t *win = obj_of(sc, "windowsOptions");
        const json_t *uid = json_object_get(sc, "runAsUser");

        *ret = (struct psa_security){ .present = sc != NULL };
        if (!sc)
                return;
        ret->privileged = tri_of(json_object_get(sc, "privileged"));
        ret->allow_privilege_escalation = tri_of(json_object_get(sc, "allowPrivilegeEscalation"));
        ret->run_as_non_root = tri_of(json_object_get(sc, "runAsNonRoot"));
        ret->host_process = tri_of(json_object_get(win, "hostProcess"));
        ret->run_as_user_set = json_is_integer(uid);
        ret->run_as_user = json_integer_value(uid);
        ret->capabilities = obj_of(sc, "capabilities");
        ret->proc_mount = json_string_value(json_object_get(sc, "procMount"));
        ret->seccomp = obj_of(sc, "seccompProfile");
        ret->apparmor = obj_of(sc, "appArmorProfile");
        ret->selinux = obj_of(sc, "seLinuxOptions");
}

static void pod_decode(const json_t *meta, const json_t *spec, struct psa_pod *ret)
{
        static const char *const lists[] = { "initContainers", "containers",
                                             "ephemeralContainers" };
        size_t n = 0;

        *ret = (struct psa_pod){ .annotations = obj_of(meta, "annotations") };
        ret->host_network = json_is_true(json_object_get(spec, "hostNetwork"));
        ret->host_pid = json_is_true(json_object_get(spec, "hostPID"));
        ret->host_ipc = json_is_true(json_object_get(spec, "hostIPC"));
        ret->windows = streq(str_of(obj_of(spec, "os"), "name"), "windows");
        security_decode(obj_of(spec, "securityContext"), &ret->sc);
        ret->sysctls = json_object_get(obj_of(spec, "securityContext"), "sysctls");
        if (!json_is_array(ret->sysctls))
                ret->sysctls = NULL;
        ret->volumes = json_object_get(spec, "volumes");
        if (!json_is_array(ret->volumes))
                ret->volumes = NULL;
        for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
                n += json_array_size(json_object_get(spec, lists[l]));
        ret->containers = xcalloc(n ? n : 1, sizeof(*ret->containers));
        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                const json_t *arr = json_object_get(spec, lists[l]), *c;
                size_t i;

                json_array_foreach(arr, i, c) {
                        struct psa_container *pc = &ret->containers[ret->n_containers++];

                        pc->name = str_of(c, "name");
                        pc->image = str_of(c, "image");
                        pc->ports = json_object_get(c, "ports");
                        security_decode(obj_of(c, "securityContext"), &pc->sc);
                }
        }
}

static void pod_release(struct psa_pod *p)
{
        free(p->containers);
        p->containers = NULL;
}

/* ---- the checks (K8S: policy/check_*.go), each filling reason and detail when the pod is
 * forbidden ---- */

struct check_out {
        const char *reason; /* static; NULL while the pod is allowed */
        struct strbuf detail;
};

typedef bool (*check_fn)(const struct psa_pod *p, struct check_out *out);

/* K8S: check_appArmorProfile.go appArmorProfile_1_0 */
static bool allowed_apparmor_type(const char *t)
{
        return streq(t, "RuntimeDefault") || streq(t, "Localhost");
}

static bool check_apparmor(const struct psa_pod *p, struct check_out *out)
{
        struct strlist setters = { 0 }, values = { 0 }, containers = { 0 }, annotations = { 0 };
        const char *key;
        const json_t *v;

        if (p->sc.apparmor && !allowed_apparmor_type(str_of(p->sc.apparmor, "type"))) {
                strlist_push(&setters, "pod");
                strset_insert(&values, str_of(p->sc.apparmor, "type"));
        }
        for (size_t i = 0; i < p->n_containers; i++) {
                const json_t *a = p->containers[i].sc.apparmor;
                if (a && !allowed_apparmor_type(str_of(a, "type"))) {
                        strlist_push(&containers, p->containers[i].name);
                        strset_insert(&values, str_of(a, "type"));
                }
        }
        strlist_sort(&values);
        push_containers(&setters, &containers);
        json_object_foreach((json_t *) p->annotations, key, v) {
                const char *val = json_string_value(v);
                if (strncmp(key, "container.apparmor.security.beta.kubernetes.io/", 47) == 0 &&
                    val && *val && !streq(val, "runtime/default") &&
                    strncmp(val, "localhost/", 10) != 0) {
                        struct strbuf sb;
                        strbuf_init(&sb);
                        strbuf_addf(&sb, "%s=", key);
                        utf8_go_quote(&sb, val, strlen(val));
                        strlist_push(&annotations, sb.buf);
                        strbuf_release(&sb);
                }
        }
        if (annotations.n) {
                strlist_sort(&annotations);
                for (size_t i = 0; i < annotations.n; i++)
                        strlist_push(&values, annotations.v[i]);
                strlist_push(&setters, pluralize("annotation", "annotations", annotations.n));
        }
        if (setters.n) {
                out->reason = pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles",
                                        values.n);
                add_join(&out->detail, &setters, " and ");
                strbuf_addstr(&out->detail, " must not set AppArmor profile type to ");
                add_join_quote(&out->detail, &values);
        }
        strlist_release(&containers);
        strlist_release(&annotations);
        strlist_release(&values);
        strlist_release(&setters);
        return out->reason != NULL;
}

/* K8S: check_capabilities_baseline.go capabilities_allowed_1_0 */
static const char *const baseline_capabilities[] = {
        "AUDIT_WRITE",      "CHOWN",   "DAC_OVERRIDE", "FOWNER",  "FSETID", "KILL",       "MKNOD",
        "NET_BIND_SERVICE", "SETFCAP", "SETGID",       "SETPCAP", "SETUID", "SYS_CHROOT",
};

static bool in_list(const char *s, const char *const *list, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (streq(s, list[i]))
                        return true;
        return false;
}

static bool check_capabilities_baseline(const struct psa_pod *p, struct check_out *out)
{
        struct strlist bad = { 0 }, caps = { 0 };

        for (size_t i = 0; i < p->n_containers; i++) {
                const json_t *add = json_object_get(p->containers[i].sc.capabilities, "add"), *c;
                bool valid = true;
                size_t j;

                json_array_foreach(add, j, c) {
                        const char *cap = json_string_value(c) ?: "";
                        if (!in_list(cap, baseline_capabilities,
                                     ARRAY_SIZE(baseline_capabilities))) {
                                valid = false;
                                strset_insert(&caps, cap);
                        }
                }
                if (!valid)
                        strlist_push(&bad, p->containers[i].name);
        }
        if (bad.n) {
                strlist_sort(&caps);
                out->reason = "non-default capabilities";
                add_containers(&out->detail, &bad);
                strbuf_addstr(&out->detail, " must not include ");
                add_join_quote(&out->detail, &caps);
                strbuf_addstr(&out->detail, " in securityContext.capabilities.add");
        }
        strlist_release(&bad);
        strlist_release(&caps);
        return out->reason != NULL;
}

/* K8S: check_hostNamespaces.go hostNamespaces_1_0 */
static bool check_host_namespaces(const struct psa_pod *p, struct check_out *out)
{
        struct strlist ns = { 0 };

        if (p->host_network)
                strlist_push(&ns, "hostNetwork=true");
        if (p->host_pid)
                strlist_push(&ns, "hostPID=true");
        if (p->host_ipc)
                strlist_push(&ns, "hostIPC=true");
        if (ns.n) {
                out->reason = "host namespaces";
                add_join(&out->detail, &ns, ", ");
        }
        strlist_release(&ns);
        return out->reason != NULL;
}

static const char *volume_name(const json_t *vol)
{
        return str_of(vol, "name");
}

/* K8S: check_hostPathVolumes.go hostPathVolumes_1_0 */
static bool check_host_path_volumes(const struct psa_pod *p, struct check_out *out)
{
        struct strlist bad = { 0 };
        const json_t *vol;
        size_t i;

        json_array_foreach(p->volumes, i, vol) {
                if (obj_of(vol, "hostPath"))
                        strlist_push(&bad, volume_name(vol));
        }
        if (bad.n) {
                out->reason = "hostPath volumes";
                strbuf_addf(&out->detail, "%s ", pluralize("volume", "volumes", bad.n));
                add_join_quote(&out->detail, &bad);
        }
        strlist_release(&bad);
        return out->reason != NULL;
}

/* K8S: check_hostPorts.go hostPorts_1_0 */
static bool check_host_ports(const struct psa_pod *p, struct check_out *out)
{
        struct strlist bad = { 0 }, ports = { 0 };

        for (size_t i = 0; i < p->n_containers; i++) {
                const json_t *port;
                bool valid = true;
                size_t j;

                json_array_foreach(p->containers[i].ports, j, port) {
                        json_int_t hp = json_integer_value(json_object_get(port, "hostPort"));
                        char buf[32];

                        if (hp == 0)
                                continue;
                        valid = false;
                        /* K8S: strconv.Itoa(int(c.HostPort)), an int32 */
                        (void) snprintf(buf, sizeof(buf), "%d", (int) (int32_t) hp);
                        strset_insert(&ports, buf);
                }
                if (!valid)
                        strlist_push(&bad, p->containers[i].name);
        }
        if (bad.n) {
                strlist_sort(&ports);
                out->reason = "hostPort";
                add_containers(&out->detail, &bad);
                strbuf_addf(&out->detail, " %s %s ", pluralize("uses", "use", bad.n),
                            pluralize("hostPort", "hostPorts", ports.n));
                add_join(&out->detail, &ports, ", ");
        }
        strlist_release(&bad);
        strlist_release(&ports);
        return out->reason != NULL;
}

/* K8S: check_privileged.go privileged_1_0 */
static bool check_privileged(const struct psa_pod *p, struct check_out *out)
{
        struct strlist bad = { 0 };

        for (size_t i = 0; i < p->n_containers; i++)
                if (p->containers[i].sc.privileged == TRI_TRUE)
                        strlist_push(&bad, p->containers[i].name);
        if (bad.n) {
                out->reason = "privileged";
                add_containers(&out->detail, &bad);
                strbuf_addstr(&out->detail, " must not set securityContext.privileged=true");
        }
        strlist_release(&bad);
        return out->reason != NULL;
}

/* K8S: check_procMount.go procMount_1_0 (the UserNamespacesPodSecurityStandards relaxation
 * is an alpha feature gate, off in 1.33, so it does not apply). */
static bool check_proc_mount(const struct psa_pod *p, struct check_out *out)
{
        struct strlist bad = { 0 }, types = { 0 };

        for (size_t i = 0; i < p->n_containers; i++) {
                const char *pm = p->containers[i].sc.proc_mount;
                if (pm && !streq(pm, "Default")) {
                        strlist_push(&bad, p->containers[i].name);
                        strset_insert(&types, pm);
                }
        }
        if (bad.n) {
                strlist_sort(&types);
                out->reason = "procMount";
                add_containers(&out->detail, &bad);
                strbuf_addstr(&out->detail, " must not set securityContext.procMount to ");
                add_join_quote(&out->detail, &types);
        }
        strlist_release(&bad);
        strlist_release(&types);
        return out->reason != NULL;
}

/* K8S: check_seLinuxOptions.go: the allowed types of v1.0 and (with container_engine_t) of
 * v1.31. */
static bool selinux_check(const struct psa_pod *p, struct check_out *out, bool v1_31)
{
        static const char *const allowed[] = { "", "container_t", "container_init_t",
                                               "container_kvm_t", "container_engine_t" };
        struct strlist setters = { 0 }, types = { 0 }, bad = { 0 }, data = { 0 };
        bool set_user = false, set_role = false;
        size_t n_allowed = v1_31 ? 5 : 4;

        for (size_t i = 0; i <= p->n_containers; i++) {
                /* i == 0: the pod; then each container */
                const json_t *o = i == 0 ? p->sc.selinux : p->containers[i - 1].sc.selinux;
                bool valid = true;

                if (!o)
                        continue;
                if (!in_list(str_of(o, "type"), allowed, n_allowed)) {
                        valid = false;
                        strset_insert(&types, str_of(o, "type"));
                }
                if (*str_of(o, "user"))
                        valid = false, set_user = true;
                if (*str_of(o, "role"))
                        valid = false, set_role = true;
                if (!valid) {
                        if (i == 0)
                                strlist_push(&setters, "pod");
                        else
                                strlist_push(&bad, p->containers[i - 1].name);
                }
        }
        push_containers(&setters, &bad);
        if (setters.n) {
                if (types.n) {
                        struct strbuf sb;
                        strlist_sort(&types);
                        strbuf_init(&sb);
                        strbuf_addf(&sb, "%s ", pluralize("type", "types", types.n));
                        add_join_quote(&sb, &types);
                        strlist_push(&data, sb.buf);
                        strbuf_release(&sb);
                }
                if (set_user)
                        strlist_push(&data, "user may not be set");
                if (set_role)
                        strlist_push(&data, "role may not be set");
                out->reason = "seLinuxOptions";
                add_join(&out->detail, &setters, " and ");
                strbuf_addstr(&out->detail, " set forbidden securityContext.seLinuxOptions: ");
                add_join(&out->detail, &data, "; ");
        }
        strlist_release(&setters);
        strlist_release(&types);
        strlist_release(&bad);
        strlist_release(&data);
        return out->reason != NULL;
}

static bool check_selinux_1_0(const struct psa_pod *p, struct check_out *out)
{
        return selinux_check(p, out, false);
}

static bool check_selinux_1_31(const struct psa_pod *p, struct check_out *out)
{
        return selinux_check(p, out, true);
}

/* K8S: check_seccompProfile_baseline.go seccompProfileBaseline_1_0: the alpha annotations. */
static bool valid_seccomp_annotation(const char *v)
{
        return streq(v, "runtime/default") || streq(v, "docker/default") ||
               strncmp(v, "localhost/", 10) == 0;
}

static void seccomp_annotation(const struct psa_pod *p, const char *key, struct strlist *bad)
{
        const json_t *v = json_object_get(p->annotations, key);
        struct strbuf sb;

        if (!json_is_string(v) || valid_seccomp_annotation(json_string_value(v)))
                return;
        strbuf_init(&sb);
        strbuf_addf(&sb, "%s=", key);
        {
                const char *text = json_string_value(v);
                utf8_go_quote(&sb, text, strlen(text));
        }
        strset_insert(bad, sb.buf);
        strbuf_release(&sb);
}

static bool check_seccomp_baseline_1_0(const struct psa_pod *p, struct check_out *out)
{
        struct strlist bad = { 0 };

        seccomp_annotation(p, "seccomp.security.alpha.kubernetes.io/pod", &bad);
        for (size_t i = 0; i < p->n_containers; i++) {
                cleanup_free char *key = xasprintf(
                        "container.seccomp.security.alpha.kubernetes.io/%s", p->containers[i].name);
                seccomp_annotation(p, key, &bad);
        }
        if (bad.n) {
                strlist_sort(&bad);
                out->reason = "seccompProfile";
                strbuf_addf(&out->detail, "forbidden %s ",
                            pluralize("annotation", "annotations", bad.n));
                add_join(&out->detail, &bad, ", ");
        }
        strlist_release(&bad);
        return out->reason != NULL;
}

static bool valid_seccomp(const json_t *profile)
{
        const char *t = str_of(profile, "type");

        return streq(t, "Localhost") || streq(t, "RuntimeDefault");
}

/* K8S: seccompProfileBaseline_1_19 and seccompProfileRestricted_1_19: explicit bad types
 * (both), and with required, containers left without a valid profile (restricted). */
static bool seccomp_fields(const struct psa_pod *p, struct check_out *out, bool required)
{
        struct strlist setters = { 0 }, values = { 0 }, explicit = { 0 }, implicit = { 0 };
        bool pod_set = false;

        if (p->sc.seccomp) {
                if (!valid_seccomp(p->sc.seccomp)) {
                        strlist_push(&setters, "pod");
                        strset_insert(&values, str_of(p->sc.seccomp, "type"));
                } else {
                        pod_set = true;
                }
        }
        for (size_t i = 0; i < p->n_containers; i++) {
                const json_t *sp = p->containers[i].sc.seccomp;
                if (sp) {
                        if (!valid_seccomp(sp)) {
                                strlist_push(&explicit, p->containers[i].name);
                                strset_insert(&values, str_of(sp, "type"));
                        }
                } else if (!pod_set) {
                        strlist_push(&implicit, p->containers[i].name);
                }
        }
        push_containers(&setters, &explicit);
        if (setters.n) {
                strlist_sort(&values);
                out->reason = "seccompProfile";
                add_join(&out->detail, &setters, " and ");
                strbuf_addstr(&out->detail,
                              " must not set securityContext.seccompProfile.type to ");
                add_join_quote(&out->detail, &values);
        } else if (required && implicit.n) {
                out->reason = "seccompProfile";
                strbuf_addstr(&out->detail, "pod or ");
                add_containers(&out->detail, &implicit);
                strbuf_addstr(
                        &out->detail,
                        " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\"");
        }
        strlist_release(&setters);
        strlist_release(&values);
        strlist_release(&explicit);
        strlist_release(&implicit);
        return out->reason != NULL;
}

static bool check_seccomp_baseline_1_19(const struct psa_pod *p, struct check_out *out)
{
        return seccomp_fields(p, out, false);
}

static bool sysctls_check(const struct psa_pod *p, struct check_out *out, size_t n_safe)
{
        struct strlist bad = { 0 };
        const json_t *s;
        size_t i;

        json_array_foreach(p->sysctls, i, s) {
                const char *name = str_of(s, "name");
                if (!in_list(name, safe_sysctls, n_safe))
                        strlist_push(&bad, name);
        }
        if (bad.n) {
                out->reason = "forbidden sysctls";
                add_join(&out->detail, &bad, ", ");
        }
        strlist_release(&bad);
        return out->reason != NULL;
}

static bool check_sysctls_1_0(const struct psa_pod *p, struct check_out *out)
{
        return sysctls_check(p, out, SAFE_SYSCTLS_V1_0);
}

static bool check_sysctls_1_27(const struct psa_pod *p, struct check_out *out)
{
        return sysctls_check(p, out, SAFE_SYSCTLS_V1_27);
}

static bool check_sysctls_1_29(const struct psa_pod *p, struct check_out *out)
{
        return sysctls_check(p, out, SAFE_SYSCTLS_V1_29);
}

static bool check_sysctls_1_32(const struct psa_pod *p, struct check_out *out)
{
        return sysctls_check(p, out, SAFE_SYSCTLS_V1_32);
}

/* K8S: check_windowsHostProcess.go windowsHostProcess_1_0 */
static bool check_windows_host_process(const struct psa_pod *p, struct check_out *out)
{
        struct strlist setters = { 0 }, bad = { 0 };

        for (size_t i = 0; i < p->n_containers; i++)
                if (p->containers[i].sc.host_process == TRI_TRUE)
                        strlist_push(&bad, p->containers[i].name);
        if (p->sc.host_process == TRI_TRUE)
                strlist_push(&setters, "pod");
        push_containers(&setters, &bad);
        if (setters.n) {
                out->reason = "hostProcess";
                add_join(&out->detail, &setters, " and ");
                strbuf_addstr(&out->detail,
                              " must not set securityContext.windowsOptions.hostProcess=true");
        }
        strlist_release(&setters);
        strlist_release(&bad);
        return out->reason != NULL;
}

/* K8S: check_allowPrivilegeEscalation.go allowPrivilegeEscalation_1_8 */
static bool check_allow_privilege_escalation_1_8(const struct psa_pod *p, struct check_out *out)
{
        struct strlist bad = { 0 };

        for (size_t i = 0; i < p->n_containers; i++)
                if (p->containers[i].sc.allow_privilege_escalation != TRI_FALSE)
                        strlist_push(&bad, p->containers[i].name);
        if (bad.n) {
                out->reason = "allowPrivilegeEscalation != false";
                add_containers(&out->detail, &bad);
                strbuf_addstr(&out->detail,
                              " must set securityContext.allowPrivilegeEscalation=false");
        }
        strlist_release(&bad);
        return out->reason != NULL;
}

/* K8S: the _1_25 revisions of three restricted checks admit a pod whose spec.os.name is
 * windows (validation refuses those fields on Windows pods). */
static bool check_allow_privilege_escalation_1_25(const struct psa_pod *p, struct check_out *out)
{
        return !p->windows && check_allow_privilege_escalation_1_8(p, out);
}

/* K8S: check_capabilities_restricted.go capabilitiesRestricted_1_22 */
static bool check_capabilities_restricted_1_22(const struct psa_pod *p, struct check_out *out)
{
        struct strlist missing_drop = { 0 }, adding = { 0 }, caps = { 0 }, details = { 0 };

        for (size_t i = 0; i < p->n_containers; i++) {
                const json_t *c = p->containers[i].sc.capabilities, *v;
                bool dropped_all = false, added_forbidden = false;
                size_t j;

                if (!c) {
                        strlist_push(&missing_drop, p->containers[i].name);
                        continue;
                }
                json_array_foreach(json_object_get(c, "drop"), j, v) {
                        if (streq(json_string_value(v) ?: "", "ALL")) {
                                dropped_all = true;
                                break;
                        }
                }
                if (!dropped_all)
                        strlist_push(&missing_drop, p->containers[i].name);
                json_array_foreach(json_object_get(c, "add"), j, v) {
                        const char *cap = json_string_value(v) ?: "";
                        if (!streq(cap, "NET_BIND_SERVICE")) {
                                added_forbidden = true;
                                strset_insert(&caps, cap);
                        }
                }
                if (added_forbidden)
                        strlist_push(&adding, p->containers[i].name);
        }
        if (missing_drop.n) {
                struct strbuf sb;
                strbuf_init(&sb);
                add_containers(&sb, &missing_drop);
                strbuf_addstr(&sb, " must set securityContext.capabilities.drop=[\"ALL\"]");
                strlist_push(&details, sb.buf);
                strbuf_release(&sb);
        }
        if (adding.n) {
                struct strbuf sb;
                strlist_sort(&caps);
                strbuf_init(&sb);
                add_containers(&sb, &adding);
                strbuf_addstr(&sb, " must not include ");
                add_join_quote(&sb, &caps);
                strbuf_addstr(&sb, " in securityContext.capabilities.add");
                strlist_push(&details, sb.buf);
                strbuf_release(&sb);
        }
        if (details.n) {
                out->reason = "unrestricted capabilities";
                add_join(&out->detail, &details, "; ");
        }
        strlist_release(&missing_drop);
        strlist_release(&adding);
        strlist_release(&caps);
        strlist_release(&details);
        return out->reason != NULL;
}

static bool check_capabilities_restricted_1_25(const struct psa_pod *p, struct check_out *out)
{
        return !p->windows && check_capabilities_restricted_1_22(p, out);
}

/* K8S: check_restrictedVolumes.go restrictedVolumes_1_0: the allowed sources, then the
 * restricted ones in upstream's switch order. */
static bool check_restricted_volumes(const struct psa_pod *p, struct check_out *out)
{
        static const char *const allowed[] = {
                "configMap", "csi",   "downwardAPI",           "emptyDir",
                "ephemeral", "image", "persistentVolumeClaim", "projected",
                "secret"
        };
        static const char *const restricted[] = {
                "hostPath",
                "gcePersistentDisk",
                "awsElasticBlockStore",
                "gitRepo",
                "nfs",
                "iscsi",
                "glusterfs",
                "rbd",
                "flexVolume",
                "cinder",
                "cephfs",
                "flocker",
                "fc",
                "azureFile",
                "vsphereVolume",
                "quobyte",
                "azureDisk",
                "photonPersistentDisk",
                "portworxVolume",
                "scaleIO",
                "storageos",
        };
        struct strlist bad = { 0 }, types = { 0 };
        const json_t *vol;
        size_t i;

        json_array_foreach(p->volumes, i, vol) {
                const char *type = "unknown";
                bool ok = false;

                for (size_t a = 0; a < ARRAY_SIZE(allowed) && !ok; a++)
                        ok = obj_of(vol, allowed[a]) != NULL;
                if (ok)
                        continue;
                strlist_push(&bad, volume_name(vol));
                for (size_t r = 0; r < ARRAY_SIZE(restricted); r++)
                        if (obj_of(vol, restricted[r])) {
                                type = restricted[r];
                                break;
                        }
                strset_insert(&types, type);
        }
        if (bad.n) {
                strlist_sort(&types);
                out->reason = "restricted volume types";
                strbuf_addf(&out->detail, "%s ", pluralize("volume", "volumes", bad.n));
                add_join_quote(&out->detail, &bad);
                strbuf_addf(
                        &out->detail, " %s %s ", pluralize("uses", "use", bad.n),
                        pluralize("restricted volume type", "restricted volume types", types.n));
                add_join_quote(&out->detail, &types);
        }
        strlist_release(&bad);
        strlist_release(&types);
        return out->reason != NULL;
}

/* K8S: check_runAsNonRoot.go runAsNonRoot_1_0 (no user-namespace relaxation in 1.33, as
 * for procMount). */
static bool check_run_as_non_root(const struct psa_pod *p, struct check_out *out)
{
        struct strlist setters = { 0 }, explicit = { 0 }, implicit = { 0 };
        bool pod_non_root = false;

        if (p->sc.run_as_non_root == TRI_FALSE)
                strlist_push(&setters, "pod");
        else if (p->sc.run_as_non_root == TRI_TRUE)
                pod_non_root = true;
        for (size_t i = 0; i < p->n_containers; i++) {
                enum tri v = p->containers[i].sc.run_as_non_root;
                if (v == TRI_FALSE)
                        strlist_push(&explicit, p->containers[i].name);
                else if (v == TRI_UNSET && !pod_non_root)
                        strlist_push(&implicit, p->containers[i].name);
        }
        push_containers(&setters, &explicit);
        if (setters.n) {
                out->reason = "runAsNonRoot != true";
                add_join(&out->detail, &setters, " and ");
                strbuf_addstr(&out->detail, " must not set securityContext.runAsNonRoot=false");
        } else if (implicit.n) {
                out->reason = "runAsNonRoot != true";
                strbuf_addstr(&out->detail, "pod or ");
                add_containers(&out->detail, &implicit);
                strbuf_addstr(&out->detail, " must set securityContext.runAsNonRoot=true");
        }
        strlist_release(&setters);
        strlist_release(&explicit);
        strlist_release(&implicit);
        return out->reason != NULL;
}

/* K8S: check_runAsUser.go runAsUser_1_23 */
static bool check_run_as_user(const struct psa_pod *p, struct check_out *out)
{
        struct strlist setters = { 0 }, bad = { 0 };

        if (p->sc.run_as_user_set && p->sc.run_as_user == 0)
                strlist_push(&setters, "pod");
        for (size_t i = 0; i < p->n_containers; i++)
                if (p->containers[i].sc.run_as_user_set && p->containers[i].sc.run_as_user == 0)
                        strlist_push(&bad, p->containers[i].name);
        push_containers(&setters, &bad);
        if (setters.n) {
                out->reason = "runAsUser=0";
                add_join(&out->detail, &setters, " and ");
                strbuf_addstr(&out->detail, " must not set runAsUser=0");
        }
        strlist_release(&setters);
        strlist_release(&bad);
        return out->reason != NULL;
}

static bool check_seccomp_restricted_1_19(const struct psa_pod *p, struct check_out *out)
{
        return seccomp_fields(p, out, true);
}

static bool check_seccomp_restricted_1_25(const struct psa_pod *p, struct check_out *out)
{
        return !p->windows && seccomp_fields(p, out, true);
}

/* ---- the registry (K8S: policy/registry.go) ---- */

struct versioned_check {
        int min_minor; /* first v1.<minor> this revision applies to */
        check_fn fn;
        const char *overrides; /* the baseline check ID it replaces at restricted, or NULL */
};

struct check {
        const char *id;
        enum psa_level level;
        struct versioned_check versions[5];
};

/* K8S: the default checks of v0.33, baseline first, then restricted, each sorted by ID (byte
 * order) as upstream orders them "to maintain consistent error messages" (registry.go
 * populate). Each check's revisions are in increasing min_minor; unused slots have no fn. */
static const struct check checks[] = {
        { "appArmorProfile", PSA_LEVEL_BASELINE, { { 0, check_apparmor, NULL } } },
        { "capabilities_baseline",
          PSA_LEVEL_BASELINE,
          { { 0, check_capabilities_baseline, NULL } } },
        { "hostNamespaces", PSA_LEVEL_BASELINE, { { 0, check_host_namespaces, NULL } } },
        { "hostPathVolumes", PSA_LEVEL_BASELINE, { { 0, check_host_path_volumes, NULL } } },
        { "hostPorts", PSA_LEVEL_BASELINE, { { 0, check_host_ports, NULL } } },
        { "privileged", PSA_LEVEL_BASELINE, { { 0, check_privileged, NULL } } },
        { "procMount", PSA_LEVEL_BASELINE, { { 0, check_proc_mount, NULL } } },
        { "seLinuxOptions",
          PSA_LEVEL_BASELINE,
          { { 0, check_selinux_1_0, NULL }, { 31, check_selinux_1_31, NULL } } },
        { "seccompProfile_baseline",
          PSA_LEVEL_BASELINE,
          { { 0, check_seccomp_baseline_1_0, NULL }, { 19, check_seccomp_baseline_1_19, NULL } } },
        { "sysctls",
          PSA_LEVEL_BASELINE,
          { { 0, check_sysctls_1_0, NULL },
            { 27, check_sysctls_1_27, NULL },
            { 29, check_sysctls_1_29, NULL },
            { 32, check_sysctls_1_32, NULL } } },
        { "windowsHostProcess", PSA_LEVEL_BASELINE, { { 0, check_windows_host_process, NULL } } },
        { "allowPrivilegeEscalation",
          PSA_LEVEL_RESTRICTED,
          { { 8, check_allow_privilege_escalation_1_8, NULL },
            { 25, check_allow_privilege_escalation_1_25, NULL } } },
        { "capabilities_restricted",
          PSA_LEVEL_RESTRICTED,
          { { 22, check_capabilities_restricted_1_22, "capabilities_baseline" },
            { 25, check_capabilities_restricted_1_25, "capabilities_baseline" } } },
        { "restrictedVolumes",
          PSA_LEVEL_RESTRICTED,
          { { 0, check_restricted_volumes, "hostPathVolumes" } } },
        { "runAsNonRoot", PSA_LEVEL_RESTRICTED, { { 0, check_run_as_non_root, NULL } } },
        { "runAsUser", PSA_LEVEL_RESTRICTED, { { 23, check_run_as_user, NULL } } },
        { "seccompProfile_restricted",
          PSA_LEVEL_RESTRICTED,
          { { 19, check_seccomp_restricted_1_19, "seccompProfile_baseline" },
            { 25, check_seccomp_restricted_1_25, "seccompProfile_baseline" } } },
};

/* The revision of c in force at v1.<minor>, or NULL before its first. */
static const struct versioned_check *check_at(const struct check *c, long long minor)
{
        const struct versioned_check *best = NULL;

        for (size_t i = 0; i < ARRAY_SIZE(c->versions) && c->versions[i].fn; i++)
                if (c->versions[i].min_minor <= minor)
                        best = &c->versions[i];
        return best;
}

/* Whether a restricted check in force at minor replaces the baseline check id. */
static bool overridden(const char *id, long long minor)
{
        for (size_t i = 0; i < ARRAY_SIZE(checks); i++) {
                const struct versioned_check *vc;
                if (checks[i].level != PSA_LEVEL_RESTRICTED)
                        continue;
                vc = check_at(&checks[i], minor);
                if (vc && vc->overrides && streq(vc->overrides, id))
                        return true;
        }
        return false;
}

void psa_evaluate(const struct psa_level_version *lv, const json_t *pod_metadata,
                  const json_t *pod_spec, struct psa_result *ret)
{
        struct psa_pod pod;
        long long minor = lv->minor;

        *ret = (struct psa_result){ 0 };
        if (lv->level == PSA_LEVEL_PRIVILEGED)
                return;
        /* K8S: checkRegistry.EvaluatePod: latest and versions past the newest check evaluate
         * as the newest. */
        if (minor == PSA_VERSION_LATEST || minor > PSA_VERSION_MAX_MINOR)
                minor = PSA_VERSION_MAX_MINOR;
        pod_decode(pod_metadata, pod_spec, &pod);
        for (size_t i = 0; i < ARRAY_SIZE(checks); i++) {
                const struct check *c = &checks[i];
                const struct versioned_check *vc = check_at(c, minor);
                struct check_out out = { 0 };

                if (!vc || c->level > lv->level)
                        continue;
                if (lv->level == PSA_LEVEL_RESTRICTED && c->level == PSA_LEVEL_BASELINE &&
                    overridden(c->id, minor))
                        continue;
                strbuf_init(&out.detail);
                if (vc->fn(&pod, &out) && ret->n < PSA_CHECKS_MAX) {
                        ret->reasons[ret->n] = xstrdup(out.reason);
                        ret->details[ret->n] = strbuf_detach(&out.detail);
                        ret->n++;
                } else {
                        strbuf_release(&out.detail);
                }
        }
        pod_release(&pod);
}

void psa_result_release(struct psa_result *r)
{
        for (size_t i = 0; i < r->n; i++) {
                free(r->reasons[i]);
                free(r->details[i]);
        }
        r->n = 0;
}

char *psa_result_forbidden_detail(const struct psa_result *r)
{
        struct strbuf sb;

        strbuf_init(&sb);
        for (size_t i = 0; i < r->n; i++) {
                strbuf_addf(&sb, "%s%s", i ? ", " : "", r->reasons[i]);
                if (r->details[i][0])
                        strbuf_addf(&sb, " (%s)", r->details[i]);
        }
        return strbuf_detach(&sb);
}

char *psa_result_forbidden_reason(const struct psa_result *r)
{
        struct strbuf sb;

        strbuf_init(&sb);
        for (size_t i = 0; i < r->n; i++)
                strbuf_addf(&sb, "%s%s", i ? ", " : "", r->reasons[i]);
        return strbuf_detach(&sb);
}

/* ---- the namespace labels (K8S: api/helpers.go) ---- */

static int parse_level(const char *s, enum psa_level *ret)
{
        for (int l = 0; l < PSA_LEVEL_MAX; l++)
                if (streq(s, level_names[l])) {
                        *ret = (enum psa_level) l;
                        return 0;
                }
        return -EINVAL;
}

/* K8S: ParseVersion: "latest" or ^v1\.([0-9]|[1-9][0-9]*)$ whose number fits Go's int. */
static int parse_version(const char *s, long long *ret)
{
        long long v = 0;
        const char *p;

        if (streq(s, "latest")) {
                *ret = PSA_VERSION_LATEST;
                return 0;
        }
        if (strncmp(s, "v1.", 3) != 0 || !s[3] || (s[3] == '0' && s[4]))
                return -EINVAL;
        for (p = s + 3; *p; p++) {
                if (*p < '0' || *p > '9' || v > (LLONG_MAX - (*p - '0')) / 10)
                        return -EINVAL;
                v = v * 10 + (*p - '0');
        }
        *ret = v;
        return 0;
}

static int compare_levels(enum psa_level a, enum psa_level b)
{
        return a == b ? 0 : a < b ? -1 : 1;
}

static void label_error(struct field_error_list *errs, const char *key, const char *value,
                        const char *detail)
{
        cleanup_free char *field = xasprintf("metadata.labels[%s]", key);
        cleanup_free char *bad = field_value_quote(value);

        field_error_add(errs, FIELD_ERROR_INVALID, field, bad, "%s", detail);
}

size_t psa_policy_from_labels(const json_t *labels, struct psa_policy *ret,
                              struct field_error_list *errs)
{
        static const char *const level_err = "must be one of privileged, baseline, restricted";
        static const char *const version_err = "must be \"latest\" or \"v1.x\"";
        size_t before = errs ? errs->n : 0, n = 0;
        bool has_enforce_level = false, has_warn_level = false, has_warn_version = false;
        struct field_error_list scratch;

        field_error_list_init(&scratch);
        if (!errs)
                errs = &scratch;
        for (int m = 0; m < PSA_MODE_MAX; m++)
                ret->modes[m] =
                        (struct psa_level_version){ PSA_LEVEL_PRIVILEGED, PSA_VERSION_LATEST };
        for (int m = 0; m < PSA_MODE_MAX; m++) {
                cleanup_free char *lkey = xasprintf(PSA_LABEL_PREFIX "%s", mode_names[m]);
                cleanup_free char *vkey = xasprintf(PSA_LABEL_PREFIX "%s-version", mode_names[m]);
                const char *level = json_string_value(json_object_get(labels, lkey));
                const char *version = json_string_value(json_object_get(labels, vkey));
                struct psa_level_version *lv = &ret->modes[m];

                if (level) {
                        if (parse_level(level, &lv->level) < 0) {
                                label_error(errs, lkey, level, level_err);
                                /* K8S: fail closed for enforce, open for audit and warn */
                                lv->level = m == PSA_MODE_ENFORCE ? PSA_LEVEL_RESTRICTED
                                                                  : PSA_LEVEL_PRIVILEGED;
                        } else if (m == PSA_MODE_ENFORCE) {
                                has_enforce_level = true;
                        }
                        if (m == PSA_MODE_WARN)
                                has_warn_level = true;
                }
                if (version) {
                        if (parse_version(version, &lv->minor) < 0) {
                                label_error(errs, vkey, version, version_err);
                                lv->minor = PSA_VERSION_LATEST;
                        }
                        if (m == PSA_MODE_WARN)
                                has_warn_version = true;
                }
        }
        /* K8S: warn defaults to the enforce level when that is explicitly set stricter. */
        if (!has_warn_level && has_enforce_level &&
            compare_levels(ret->modes[PSA_MODE_ENFORCE].level, ret->modes[PSA_MODE_WARN].level) >
                    0) {
                ret->modes[PSA_MODE_WARN].level = ret->modes[PSA_MODE_ENFORCE].level;
                if (!has_warn_version)
                        ret->modes[PSA_MODE_WARN].minor = ret->modes[PSA_MODE_ENFORCE].minor;
        }
        n = errs->n - (errs == &scratch ? 0 : before);
        field_error_list_release(&scratch);
        return n;
}

static bool lv_equal(const struct psa_level_version *a, const struct psa_level_version *b)
{
        return a->level == b->level && a->minor == b->minor;
}

static bool fully_privileged(const struct psa_policy *p)
{
        for (int m = 0; m < PSA_MODE_MAX; m++)
                if (p->modes[m].level != PSA_LEVEL_PRIVILEGED)
                        return false;
        return true;
}

/* ---- pods (K8S: admission/admission.go) ---- */

static const char *image_of(const json_t *c)
{
        return str_of(c, "image");
}

bool psa_pod_update_significant(const json_t *new_pod, const json_t *old_pod)
{
        static const char *const lists[] = { "containers", "initContainers" };
        const json_t *nspec = obj_of(new_pod, "spec"), *ospec = obj_of(old_pod, "spec");
        const json_t *c;
        size_t i;

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                const json_t *n = json_object_get(nspec, lists[l]);
                const json_t *o = json_object_get(ospec, lists[l]);

                if (json_array_size(n) != json_array_size(o))
                        return true;
                json_array_foreach(n, i, c) {
                        if (!streq(image_of(c), image_of(json_array_get(o, i))))
                                return true;
                }
        }
        json_array_foreach(json_object_get(nspec, "ephemeralContainers"), i, c) {
                const json_t *oc, *found = NULL;
                size_t j;

                json_array_foreach(json_object_get(ospec, "ephemeralContainers"), j, oc) {
                        if (streq(str_of(oc, "name"), str_of(c, "name"))) {
                                found = oc;
                                break;
                        }
                }
                if (!found || !streq(image_of(c), image_of(found)))
                        return true;
        }
        return false;
}

/* K8S: EvaluatePod's cachedResults: a level and version evaluated once per request. */
static void evaluate_cached(const struct psa_level_version *lv, const json_t *pod,
                            struct psa_result *cache, struct psa_level_version *cache_lv,
                            size_t *n_cached, struct psa_result **ret)
{
        for (size_t i = 0; i < *n_cached; i++)
                if (lv_equal(&cache_lv[i], lv)) {
                        *ret = &cache[i];
                        return;
                }
        psa_evaluate(lv, obj_of(pod, "metadata"), obj_of(pod, "spec"), &cache[*n_cached]);
        cache_lv[*n_cached] = *lv;
        *ret = &cache[(*n_cached)++];
}

static void record(struct psa_decision *d, bool deny, enum psa_mode mode,
                   const struct psa_level_version *lv)
{
        d->evaluations[d->n_evaluations++] = (struct psa_evaluation){ deny, mode, *lv };
}

void psa_evaluate_pod(const struct psa_policy *policy, const struct field_error_list *policy_errs,
                      const json_t *pod, struct psa_decision *ret)
{
        const struct psa_level_version *enforce = &policy->modes[PSA_MODE_ENFORCE];
        const struct psa_level_version *audit = &policy->modes[PSA_MODE_AUDIT];
        const struct psa_level_version *warn = &policy->modes[PSA_MODE_WARN];
        struct psa_result cache[PSA_MODE_MAX], *res;
        struct psa_level_version cache_lv[PSA_MODE_MAX];
        size_t n_cached = 0;
        char lvs[PSA_LEVEL_VERSION_STRING_MAX];

        *ret = (struct psa_decision){ .warnings = json_array(),
                                      .audit_annotations = json_object() };
        if (policy_errs && policy_errs->n) {
                cleanup_free char *agg = field_error_list_string(policy_errs);
                json_object_set_new(ret->audit_annotations, "error",
                                    json_sprintf("Failed to parse policy: %s", agg));
        }
        /* enforce */
        json_object_set_new(ret->audit_annotations, "enforce-policy",
                            json_string(psa_level_version_string(enforce, lvs)));
        evaluate_cached(enforce, pod, cache, cache_lv, &n_cached, &res);
        if (res->n) {
                cleanup_free char *detail = psa_result_forbidden_detail(res);
                ret->forbidden = xasprintf("violates PodSecurity \"%s\": %s",
                                           psa_level_version_string(enforce, lvs), detail);
        }
        record(ret, res->n > 0, PSA_MODE_ENFORCE, enforce);
        /* audit: reuses the enforce evaluation when the level and version are the same */
        evaluate_cached(audit, pod, cache, cache_lv, &n_cached, &res);
        if (res->n) {
                cleanup_free char *detail = psa_result_forbidden_detail(res);
                json_object_set_new(ret->audit_annotations, "audit-violations",
                                    json_sprintf("would violate PodSecurity \"%s\": %s",
                                                 psa_level_version_string(audit, lvs), detail));
                record(ret, true, PSA_MODE_AUDIT, audit);
        }
        /* warn: no warnings on a request refused anyway */
        if (!ret->forbidden) {
                evaluate_cached(warn, pod, cache, cache_lv, &n_cached, &res);
                if (res->n) {
                        cleanup_free char *detail = psa_result_forbidden_detail(res);
                        json_array_append_new(ret->warnings,
                                              json_sprintf("would violate PodSecurity \"%s\": %s",
                                                           psa_level_version_string(warn, lvs),
                                                           detail));
                        record(ret, true, PSA_MODE_WARN, warn);
                }
        }
        for (size_t i = 0; i < n_cached; i++)
                psa_result_release(&cache[i]);
}

void psa_decision_release(struct psa_decision *d)
{
        free(d->forbidden);
        json_decref(d->warnings);
        json_decref(d->audit_annotations);
        *d = (struct psa_decision){ 0 };
}

/* ---- namespaces ---- */

/* K8S: metav1.GetControllerOfNoCopy: the uid of the ownerReference with controller: true. */
static const char *controller_uid(const json_t *pod)
{
        const json_t *ref;
        size_t i;

        json_array_foreach(json_path(pod, "metadata.ownerReferences"), i, ref) {
                if (json_is_true(json_object_get(ref, "controller")))
                        return str_of(ref, "uid");
        }
        return NULL;
}

struct pod_warning {
        char *reason;     /* ForbiddenReason */
        const char *name; /* the lexically first pod name with it */
        size_t count;
};

static int cmp_pod_warning_text(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

json_t *psa_namespace_pods_warnings(const char *ns, const struct psa_level_version *lv,
                                    const json_t *pods, long long deadline_ms)
{
        size_t total = json_array_size(pods), checked, n_order = 0, n_warn = 0;
        const json_t **order = xcalloc(total ? total : 1, sizeof(*order));
        struct pod_warning *warns = xcalloc(total ? total : 1, sizeof(*warns));
        struct strlist seen_controllers = { 0 };
        json_t *out = json_array();
        char **texts;
        char lvs[PSA_LEVEL_VERSION_STRING_MAX];
        const json_t *pod;
        size_t i;

        /* K8S: prioritizePods: one pod per controller first, the controllers' other pods
         * after every other pod (no runtime class is exempt). */
        json_array_foreach(pods, i, pod) {
                const char *uid = controller_uid(pod);
                if (!uid || !strlist_has(&seen_controllers, uid)) {
                        order[n_order++] = pod;
                        if (uid)
                                strlist_push(&seen_controllers, uid);
                }
        }
        strlist_release(&seen_controllers);
        json_array_foreach(pods, i, pod) {
                const char *uid = controller_uid(pod);
                bool first = false;

                for (size_t j = 0; j < n_order && uid; j++)
                        first = first || order[j] == pod;
                if (uid && !first)
                        order[n_order++] = pod;
        }
        checked = total > NAMESPACE_MAX_PODS_TO_CHECK ? NAMESPACE_MAX_PODS_TO_CHECK : total;
        for (i = 0; i < checked; i++) {
                struct psa_result r;
                const char *name = json_path_string(order[i], "metadata.name") ?: "";

                psa_evaluate(lv, obj_of(order[i], "metadata"), obj_of(order[i], "spec"), &r);
                if (r.n) {
                        cleanup_free char *reason = psa_result_forbidden_reason(&r);
                        size_t w;

                        for (w = 0; w < n_warn && !streq(warns[w].reason, reason); w++)
                                ;
                        if (w == n_warn) {
                                warns[n_warn++] = (struct pod_warning){ TAKE_PTR(reason), name, 0 };
                        } else if (strcmp(name, warns[w].name) < 0) {
                                warns[w].name = name;
                        }
                        warns[w].count++;
                }
                psa_result_release(&r);
                /* K8S: a deadline (1 s) ends the check early */
                if (deadline_ms && time_monotonic_ms() >= deadline_ms) {
                        checked = i + 1;
                        break;
                }
        }
        if (checked < total)
                json_array_append_new(out, json_sprintf("new PodSecurity enforce level only "
                                                        "checked against the first %zu of %zu "
                                                        "existing pods",
                                                        checked, total));
        if (n_warn)
                json_array_append_new(
                        out, json_sprintf("existing pods in namespace \"%s\" violate the new "
                                          "PodSecurity enforce level \"%s\"",
                                          ns, psa_level_version_string(lv, lvs)));
        /* K8S: decoratePodWarnings, then sort.Strings for a deterministic order */
        texts = xcalloc(n_warn ? n_warn : 1, sizeof(*texts));
        for (size_t w = 0; w < n_warn; w++) {
                if (warns[w].count == 1)
                        texts[w] = xasprintf("%s: %s", warns[w].name, warns[w].reason);
                else if (warns[w].count == 2)
                        texts[w] = xasprintf("%s (and 1 other pod): %s", warns[w].name,
                                             warns[w].reason);
                else
                        texts[w] = xasprintf("%s (and %zu other pods): %s", warns[w].name,
                                             warns[w].count - 1, warns[w].reason);
                free(warns[w].reason);
        }
        qsort(texts, n_warn, sizeof(*texts), cmp_pod_warning_text);
        for (size_t w = 0; w < n_warn; w++) {
                json_array_append_new(out, json_string(texts[w]));
                free(texts[w]);
        }
        free(texts);
        free(warns);
        free(order);
        return out;
}

/* reflect.DeepEqual of two field error lists. */
static bool errs_equal(const struct field_error_list *a, const struct field_error_list *b)
{
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++) {
                cleanup_free char *x = field_error_string(&a->items[i]);
                cleanup_free char *y = field_error_string(&b->items[i]);
                if (!streq(x, y))
                        return false;
        }
        return true;
}

int psa_namespace_admit(const json_t *ns, const json_t *old_ns, struct field_error_list *errs,
                        struct psa_level_version *ret_check)
{
        struct field_error_list old_errs;
        struct psa_policy new_policy, old_policy;
        const struct psa_level_version *ne, *oe;
        size_t before = errs->n;
        bool refuse;

        psa_policy_from_labels(json_path(ns, "metadata.labels"), &new_policy, errs);
        if (!old_ns)
                return errs->n > before ? -EBADMSG : 0;
        field_error_list_init(&old_errs);
        psa_policy_from_labels(json_path(old_ns, "metadata.labels"), &old_policy, &old_errs);
        /* K8S: labels that fail must not have changed how they fail. */
        if (errs->n > before) {
                struct field_error_list mine = { errs->items + before, errs->n - before, 0 };
                refuse = old_errs.n == 0 || !errs_equal(&mine, &old_errs);
        } else {
                refuse = false;
        }
        field_error_list_release(&old_errs);
        if (refuse)
                return -EBADMSG;
        ne = &new_policy.modes[PSA_MODE_ENFORCE];
        oe = &old_policy.modes[PSA_MODE_ENFORCE];
        /* K8S: no dry run when the enforce policy is unchanged, privileged, or the same
         * version at a level no stricter. */
        if (lv_equal(ne, oe) || ne->level == PSA_LEVEL_PRIVILEGED ||
            (ne->minor == oe->minor && compare_levels(ne->level, oe->level) < 1))
                return 0;
        *ret_check = *ne;
        return 1;
}

/* ---- metrics and the glue ---- */

int pod_security_metrics_register(struct metrics_registry *reg, struct metric **ret_evaluations,
                                  struct metric **ret_errors)
{
        /* K8S: pod-security-admission/metrics/metrics.go */
        static const char *const evaluations[] = { "decision",          "policy_level",
                                                   "policy_version",    "mode",
                                                   "request_operation", "resource",
                                                   "subresource",       NULL };
        static const char *const errors[] = { "fatal", "request_operation", "resource",
                                              "subresource", NULL };

        *ret_evaluations = *ret_errors = NULL;
        if (!reg)
                return 0;
        *ret_evaluations = metrics_counter_new(
                reg, "pod_security_evaluations_total",
                "[ALPHA] Number of policy evaluations that occurred, not counting ignored or "
                "exempt requests.",
                evaluations, NULL);
        *ret_errors = metrics_counter_new(
                reg, "pod_security_errors_total",
                "[ALPHA] Number of errors preventing normal evaluation. Non-fatal errors may "
                "result in the latest restricted profile being used for evaluation.",
                errors, NULL);
        return *ret_evaluations && *ret_errors ? 0 : -EEXIST;
}

static const char *subresource_name(enum api_subresource sub)
{
        return sub == API_SUB_RESIZE ? "resize" : sub == API_SUB_STATUS ? "status" : "";
}

static void count_evaluation(struct apiserver *s, const struct psa_evaluation *e, bool create,
                             const struct api_target *t)
{
        char version[32];
        const char *labels[8];

        if (!s->psa_evaluations)
                return;
        /* K8S: RecordEvaluation: privileged is always "latest"; versions past the server's
         * are "future". */
        if (e->lv.minor == PSA_VERSION_LATEST || e->lv.level == PSA_LEVEL_PRIVILEGED)
                (void) snprintf(version, sizeof(version), "latest");
        else if (e->lv.minor > PSA_SERVER_MINOR)
                (void) snprintf(version, sizeof(version), "future");
        else
                version_string(e->lv.minor, version, sizeof(version));
        labels[0] = e->deny ? "deny" : "allow";
        labels[1] = psa_level_to_string(e->lv.level);
        labels[2] = version;
        labels[3] = psa_mode_to_string(e->mode);
        labels[4] = create ? "create" : "update";
        labels[5] = "pod";
        labels[6] = subresource_name(t->sub);
        labels[7] = NULL;
        (void) metrics_add(s->psa_evaluations, labels, 1);
}

static void count_error(struct apiserver *s, bool fatal, bool create, const struct api_target *t)
{
        const char *labels[] = { fatal ? "true" : "false", create ? "create" : "update", "pod",
                                 subresource_name(t->sub), NULL };

        if (s->psa_errors)
                (void) metrics_add(s->psa_errors, labels, 1);
}

static int validate_pod(struct apiserver *s, const struct api_target *t, const json_t *pod,
                        const json_t *old, struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *ns = NULL;
        struct field_error_list errs;
        struct psa_policy policy;
        struct psa_decision d;
        const char *name = json_path_string(pod, "metadata.name") ?: "";
        bool create = old == NULL;
        size_t i;
        json_t *w;

        /* K8S: ignoredPodSubresources (exec, attach, binding, eviction, log, portforward,
         * proxy, status); every other write, resize included, is evaluated. */
        if (t->sub == API_SUB_STATUS || t->sub == API_SUB_BINDING || t->sub == API_SUB_LOG)
                return 0;
        /* K8S: an update that changes nothing PodSecurity checks is admitted. Upstream asks
         * first whether the namespace is fully privileged (from an informer's cache, for free)
         * and counts an "allow" evaluation when it is; here that costs a cached read and a
         * copy, so the update is let through first and that count is skipped. */
        if (!create && !psa_pod_update_significant(pod, old))
                return 0;
        /* K8S: the namespace from the informer's cache (a live read when it is not there) */
        if (store_get_cached(s->store, "namespaces", "", t->ns, &ns, NULL) < 0 &&
            store_get(s->store, "namespaces", "", t->ns, &ns, &err) < 0) {
                cleanup_free char *msg = xasprintf(
                        "Internal error occurred: failed to lookup namespace \"%s\"", t->ns);
                count_error(s, true, create, t);
                status_respond(resp, EIO, msg, NULL);
                return -EIO;
        }
        field_error_list_init(&errs);
        psa_policy_from_labels(json_path(ns, "metadata.labels"), &policy, &errs);
        if (errs.n == 0 && fully_privileged(&policy)) {
                struct psa_evaluation e = { false, PSA_MODE_ENFORCE,
                                            policy.modes[PSA_MODE_ENFORCE] };
                count_evaluation(s, &e, create, t);
                field_error_list_release(&errs);
                return 0;
        }
        if (errs.n)
                count_error(s, false, create, t);
        psa_evaluate_pod(&policy, &errs, pod, &d);
        field_error_list_release(&errs);
        for (size_t e = 0; e < d.n_evaluations; e++)
                count_evaluation(s, &d.evaluations[e], create, t);
        if (d.forbidden) {
                status_forbidden(resp, t->res, name, d.forbidden);
                psa_decision_release(&d);
                return -EPERM;
        }
        json_array_foreach(d.warnings, i, w) {
                http_response_add_warning(resp, json_string_value(w));
        }
        psa_decision_release(&d);
        return 0;
}

static int validate_namespace(struct apiserver *s, const struct api_target *t, const json_t *ns,
                              const json_t *old, struct http_response *resp)
{
        struct field_error_list errs;
        struct psa_level_version check;
        const char *name = json_path_string(ns, "metadata.name") ?: "";
        int r;

        /* K8S: namespace subresources (status, finalize) are not evaluated. */
        if (t->sub != API_SUB_NONE)
                return 0;
        field_error_list_init(&errs);
        r = psa_namespace_admit(ns, old, &errs, &check);
        if (r == -EBADMSG)
                status_invalid(resp, t->res, name, &errs);
        field_error_list_release(&errs);
        if (r < 0)
                return r;
        if (r == 1) {
                cleanup_error struct error *err = NULL;
                cleanup_json json_t *pods = NULL, *warnings = NULL;
                uint64_t rv;
                size_t i;
                json_t *w;

                if (store_list(s->store, "pods", name, &pods, &rv, &err) < 0)
                        warnings = json_pack("[s]", "failed to list pods while checking new "
                                                    "PodSecurity enforce level");
                else
                        warnings = psa_namespace_pods_warnings(
                                name, &check, pods,
                                time_monotonic_ms() + NAMESPACE_POD_CHECK_TIMEOUT_MS);
                json_array_foreach(warnings, i, w) {
                        http_response_add_warning(resp, json_string_value(w));
                }
        }
        return 0;
}

int pod_security_validate(struct apiserver *s, const struct api_target *t, const json_t *obj,
                          const json_t *old, struct http_response *resp)
{
        if (t->res->group[0])
                return 0;
        if (streq(t->res->plural, "pods"))
                return validate_pod(s, t, obj, old, resp);
        if (streq(t->res->plural, "namespaces"))
                return validate_namespace(s, t, obj, old, resp);
        return 0;
}
