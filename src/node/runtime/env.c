/* env.c: a container's process environment and argv as Kubernetes defines them: $(VAR)
 * expansion, the pod's env list expanded in order, the runtime's defaults (PATH, HOSTNAME,
 * HOME), and command/args against the image's entrypoint/cmd. Pure: no I/O. */
#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "node/runtime/runtime-internal.h"

/* K8S third_party/forked/golang/expansion.Expand. Scanning stops at a '$' with something after
 * it: "$$" is an escaped '$'; "$(" up to the first ')' is a reference (its name looked up, or
 * the text kept when unknown); "$(" without a ')' and '$' before any other byte stay as they
 * are. A '$' at the very end is kept. */
char *rt_expand(const char *input, const char *(*lookup)(void *ud, const char *name), void *ud)
{
        struct strbuf sb;
        size_t len = strlen(input), checkpoint = 0;

        strbuf_init(&sb);
        for (size_t cur = 0; cur < len; cur++) {
                const char *rest;
                size_t advance = 1;

                if (input[cur] != '$' || cur + 1 >= len)
                        continue;
                strbuf_add(&sb, input + checkpoint, cur - checkpoint);
                rest = input + cur + 1;
                if (rest[0] == '$') {
                        strbuf_addch(&sb, '$');
                } else if (rest[0] == '(') {
                        const char *close = strchr(rest + 1, ')');
                        if (close) {
                                cleanup_free char *name =
                                        xstrndup(rest + 1, (size_t) (close - rest - 1));
                                const char *v = lookup(ud, name);

                                if (v)
                                        strbuf_addstr(&sb, v);
                                else
                                        strbuf_addf(&sb, "$(%s)", name);
                                advance = (size_t) (close - rest) + 1;
                        } else {
                                strbuf_addstr(&sb, "$(");
                        }
                } else {
                        strbuf_addch(&sb, '$');
                        strbuf_addch(&sb, rest[0]);
                }
                cur += advance;
                checkpoint = cur + 1;
        }
        if (checkpoint < len)
                strbuf_add(&sb, input + checkpoint, len - checkpoint);
        return strbuf_detach(&sb);
}

void rt_env_release(struct rt_env *e)
{
        for (size_t i = 0; i < e->n; i++) {
                free(e->names[i]);
                free(e->values[i]);
        }
        free(e->names);
        free(e->values);
        *e = (struct rt_env){ 0 };
}

void rt_env_set(struct rt_env *e, const char *name, const char *value)
{
        for (size_t i = 0; i < e->n; i++)
                if (streq(e->names[i], name)) {
                        free(e->values[i]);
                        e->values[i] = xstrdup(value);
                        return;
                }
        e->names = xrealloc(e->names, (e->n + 1) * sizeof(*e->names));
        e->values = xrealloc(e->values, (e->n + 1) * sizeof(*e->values));
        e->names[e->n] = xstrdup(name);
        e->values[e->n] = xstrdup(value);
        e->n++;
}

const char *rt_env_get(const struct rt_env *e, const char *name)
{
        for (size_t i = 0; i < e->n; i++)
                if (streq(e->names[i], name))
                        return e->values[i];
        return NULL;
}

char **rt_env_to_strv(const struct rt_env *e)
{
        char **v = xcalloc(e->n + 1, sizeof(*v));

        for (size_t i = 0; i < e->n; i++)
                v[i] = xasprintf("%s=%s", e->names[i], e->values[i]);
        return v;
}

static const char *env_lookup(void *ud, const char *name)
{
        return rt_env_get(ud, name);
}

void rt_pod_env(const struct runtime_container_spec *s, struct rt_env *ret)
{
        struct rt_env e = { 0 };

        for (size_t i = 0; i < s->n_env; i++) {
                const struct runtime_env_var *v = &s->env[i];
                const char *value = v->value ? v->value : "";

                if (!v->name || !*v->name)
                        continue;
                if (v->literal) {
                        rt_env_set(&e, v->name, value);
                } else {
                        cleanup_free char *x = rt_expand(value, env_lookup, &e);
                        rt_env_set(&e, v->name, x);
                }
        }
        *ret = e;
}

/* Splits "NAME=value" into e. Entries without '=' are ignored (the kernel would pass them, but
 * no shell can read them). */
static void env_add_pair(struct rt_env *e, const char *pair)
{
        const char *eq = strchr(pair, '=');
        cleanup_free char *name = NULL;

        if (!eq || eq == pair)
                return;
        name = xstrndup(pair, (size_t) (eq - pair));
        rt_env_set(e, name, eq + 1);
}

char **rt_process_env(const struct runtime_container_spec *s, const struct rt_env *pod_env,
                      const char *hostname, const char *home)
{
        struct rt_env e = { 0 };
        char **v;

        /* K8S (containerd CRI): the default PATH, HOSTNAME, the image's env, then the
         * container's; a later definition of a name wins. */
        rt_env_set(&e, "PATH", RT_DEFAULT_PATH);
        if (hostname)
                rt_env_set(&e, "HOSTNAME", hostname);
        for (size_t i = 0; s->image_env && s->image_env[i]; i++)
                env_add_pair(&e, s->image_env[i]);
        for (size_t i = 0; i < pod_env->n; i++)
                rt_env_set(&e, pod_env->names[i], pod_env->values[i]);
        /* runc: HOME from the user's passwd entry when the process has none */
        if (!rt_env_get(&e, "HOME"))
                rt_env_set(&e, "HOME", home && *home ? home : "/");
        v = rt_env_to_strv(&e);
        rt_env_release(&e);
        return v;
}

static bool strv_empty(const char *const *v)
{
        return !v || !v[0];
}

int rt_process_argv(const struct runtime_container_spec *s, const struct rt_env *pod_env,
                    char ***ret, struct error **reterr)
{
        const char *const *first, *const *second;
        char **argv = NULL;
        size_t n = 0;

        /* K8S: command replaces the image's entrypoint and drops its cmd; args alone replace
         * the cmd and keep the entrypoint; neither: entrypoint + cmd. */
        if (!strv_empty(s->command)) {
                first = s->command;
                second = s->args;
        } else if (!strv_empty(s->args)) {
                first = s->image_entrypoint;
                second = s->args;
        } else {
                first = s->image_entrypoint;
                second = s->image_cmd;
        }
        argv = xcalloc(1, sizeof(*argv));
        /* K8S: $(VAR) in command and args expands against the container's env only (the
         * image's env and the runtime's defaults are not part of it). */
        for (size_t i = 0; first && first[i]; i++)
                rt_strv_push(&argv, &n, rt_expand(first[i], env_lookup, (void *) pod_env));
        for (size_t i = 0; second && second[i]; i++)
                rt_strv_push(&argv, &n, rt_expand(second[i], env_lookup, (void *) pod_env));
        if (n == 0) {
                rt_strv_free(argv);
                return error_set(reterr, EINVAL, "no command specified");
        }
        *ret = argv;
        return 0;
}

char **rt_env_default_term(char **envp)
{
        size_t n = 0;

        for (; envp[n]; n++)
                if (strncmp(envp[n], "TERM=", 5) == 0)
                        return envp;
        /* K8S/containerd (oci.WithTTY): a terminal gets TERM=xterm unless the env sets one */
        envp = xrealloc(envp, (n + 2) * sizeof(*envp));
        envp[n] = xstrdup("TERM=xterm");
        envp[n + 1] = NULL;
        return envp;
}
