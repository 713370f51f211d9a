/* cni.c: runs CNI plugins and parses their answers (see cni.h). Responsible for the protocol
 * only: which network a pod gets, where its netns lives and what is kept across restarts are
 * pod-network.c's. The result parser and the configuration derivation are pure functions, so
 * unit tests and the fuzzer reach them without running anything. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/spawn.h"
#include "node/network/cni.h"

/* a value we copy out of a result: names, MACs, paths, addresses */
#define CNI_STRING_MAX 4096

const char *cni_command_to_string(enum cni_command c)
{
        static const char *const names[CNI_COMMAND_MAX] = { "ADD", "DEL", "CHECK" };

        return c < CNI_COMMAND_MAX ? names[c] : "?";
}

/* ------------------------------------------------------------------ results */

static void interface_release(struct cni_interface *i)
{
        free(i->name);
        free(i->mac);
        free(i->sandbox);
}

void cni_result_release(struct cni_result *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->n_interfaces; i++)
                interface_release(&r->interfaces[i]);
        for (size_t i = 0; i < r->n_ips; i++) {
                free(r->ips[i].address);
                free(r->ips[i].ip);
                free(r->ips[i].gateway);
        }
        for (size_t i = 0; i < r->n_routes; i++) {
                free(r->routes[i].dst);
                free(r->routes[i].gw);
        }
        free(r->interfaces);
        free(r->ips);
        free(r->routes);
        free(r->cni_version);
        json_decref(r->json);
        *r = (struct cni_result){ 0 };
}

/* A bounded string member: NULL when absent; -EBADMSG when present but not a string. */
static int opt_string(const json_t *o, const char *key, const char *what, char **ret,
                      struct error **reterr)
{
        const json_t *v = json_object_get(o, key);

        *ret = NULL;
        if (!v || json_is_null(v))
                return 0;
        if (!json_is_string(v) || json_string_length(v) > CNI_STRING_MAX ||
            strlen(json_string_value(v)) != json_string_length(v))
                return error_set(reterr, EBADMSG, "%s: \"%s\" is not a string", what, key);
        *ret = xstrdup(json_string_value(v));
        return 0;
}

/* Parses an IP address (no prefix): 0 and the family in *ret_family, or -EINVAL. */
static int parse_ip(const char *s, int *ret_family, char ret_text[static INET6_ADDRSTRLEN])
{
        unsigned char buf[sizeof(struct in6_addr)];

        if (inet_pton(AF_INET, s, buf) == 1) {
                *ret_family = AF_INET;
                (void) inet_ntop(AF_INET, buf, ret_text, INET6_ADDRSTRLEN);
                return 0;
        }
        if (inet_pton(AF_INET6, s, buf) == 1) {
                *ret_family = AF_INET6;
                (void) inet_ntop(AF_INET6, buf, ret_text, INET6_ADDRSTRLEN);
                return 0;
        }
        return -EINVAL;
}

/* "ADDR/PREFIX" with a prefix that fits the family. */
static int parse_cidr(const char *s, int *ret_family, char ret_ip[static INET6_ADDRSTRLEN])
{
        const char *slash = strchr(s, '/');
        char addr[INET6_ADDRSTRLEN + 1];
        char *end;
        long prefix;
        int family;

        if (!slash || (size_t) (slash - s) >= sizeof(addr) || !slash[1])
                return -EINVAL;
        memcpy(addr, s, (size_t) (slash - s));
        addr[slash - s] = '\0';
        if (parse_ip(addr, &family, ret_ip) < 0)
                return -EINVAL;
        if (slash[1] < '0' || slash[1] > '9')
                return -EINVAL;
        errno = 0;
        prefix = strtol(slash + 1, &end, 10);
        if (errno || *end || prefix < 0 || prefix > (family == AF_INET ? 32 : 128))
                return -EINVAL;
        *ret_family = family;
        return 0;
}

/* The result's list `key` (a): absent or null is no entries; anything but an array of at most
 * CNI_RESULT_MAX_ENTRIES objects is -EBADMSG. Returns the number of entries. */
static int result_list(const json_t *a, const char *key, struct error **reterr)
{
        size_t i;
        json_t *v;

        if (!a || json_is_null(a))
                return 0;
        if (!json_is_array(a) || json_array_size(a) > CNI_RESULT_MAX_ENTRIES)
                return error_set(reterr, EBADMSG,
                                 "cni result: \"%s\" is not an array of at most %d", key,
                                 CNI_RESULT_MAX_ENTRIES);
        json_array_foreach(a, i, v) {
                if (!json_is_object(v))
                        return error_set(reterr, EBADMSG, "cni result: %s[%zu] is not an object",
                                         key, i);
        }
        return (int) json_array_size(a);
}

static int parse_interfaces(const json_t *a, struct cni_result *r, struct error **reterr)
{
        int n = result_list(a, "interfaces", reterr);
        size_t i;
        json_t *v;

        if (n <= 0)
                return n;
        r->interfaces = xcalloc((size_t) n + 1, sizeof(*r->interfaces));
        json_array_foreach(a, i, v) {
                struct cni_interface *it = &r->interfaces[r->n_interfaces];
                int e;

                r->n_interfaces++;
                if ((e = opt_string(v, "name", "cni result: interface", &it->name, reterr)) < 0 ||
                    (e = opt_string(v, "mac", "cni result: interface", &it->mac, reterr)) < 0 ||
                    (e = opt_string(v, "sandbox", "cni result: interface", &it->sandbox, reterr)) <
                            0)
                        return e;
                if (!it->name || !*it->name)
                        return error_set(reterr, EBADMSG, "cni result: interfaces[%zu] has no name",
                                         i);
                if (!it->mac)
                        it->mac = xstrdup("");
                if (!it->sandbox)
                        it->sandbox = xstrdup("");
        }
        return 0;
}

static int parse_ips(const json_t *a, struct cni_result *r, struct error **reterr)
{
        int n = result_list(a, "ips", reterr);
        size_t i;
        json_t *v;

        if (n <= 0)
                return n;
        r->ips = xcalloc((size_t) n + 1, sizeof(*r->ips));
        json_array_foreach(a, i, v) {
                struct cni_ip *ip = &r->ips[r->n_ips];
                char text[INET6_ADDRSTRLEN];
                const json_t *idx;
                int family, e;

                r->n_ips++;
                ip->interface = -1;
                if ((e = opt_string(v, "address", "cni result: ip", &ip->address, reterr)) < 0 ||
                    (e = opt_string(v, "gateway", "cni result: ip", &ip->gateway, reterr)) < 0)
                        return e;
                if (!ip->address || parse_cidr(ip->address, &ip->family, text) < 0)
                        return error_set(reterr, EBADMSG,
                                         "cni result: ips[%zu].address \"%s\" is not an address in "
                                         "CIDR notation",
                                         i, ip->address ? ip->address : "");
                ip->ip = xstrdup(text);
                if (ip->gateway && parse_ip(ip->gateway, &family, text) < 0)
                        return error_set(reterr, EBADMSG,
                                         "cni result: ips[%zu].gateway \"%s\" is not an IP address",
                                         i, ip->gateway);
                idx = json_object_get(v, "interface");
                if (idx && !json_is_null(idx)) {
                        if (!json_is_integer(idx) || json_integer_value(idx) < 0 ||
                            (size_t) json_integer_value(idx) >= r->n_interfaces)
                                return error_set(reterr, EBADMSG,
                                                 "cni result: ips[%zu].interface is not an index "
                                                 "into interfaces",
                                                 i);
                        ip->interface = (long) json_integer_value(idx);
                }
        }
        return 0;
}

static int parse_routes(const json_t *a, struct cni_result *r, struct error **reterr)
{
        int n = result_list(a, "routes", reterr);
        size_t i;
        json_t *v;

        if (n <= 0)
                return n;
        r->routes = xcalloc((size_t) n + 1, sizeof(*r->routes));
        json_array_foreach(a, i, v) {
                struct cni_route *rt = &r->routes[r->n_routes];
                char text[INET6_ADDRSTRLEN];
                int family, e;

                r->n_routes++;
                if ((e = opt_string(v, "dst", "cni result: route", &rt->dst, reterr)) < 0 ||
                    (e = opt_string(v, "gw", "cni result: route", &rt->gw, reterr)) < 0)
                        return e;
                if (!rt->dst || parse_cidr(rt->dst, &family, text) < 0)
                        return error_set(reterr, EBADMSG,
                                         "cni result: routes[%zu].dst \"%s\" is not a CIDR", i,
                                         rt->dst ? rt->dst : "");
                if (rt->gw && parse_ip(rt->gw, &family, text) < 0)
                        return error_set(reterr, EBADMSG,
                                         "cni result: routes[%zu].gw \"%s\" is not an IP address",
                                         i, rt->gw);
        }
        return 0;
}

int cni_result_parse(const char *data, size_t len, struct cni_result *ret, struct error **reterr)
{
        struct cni_result r = { 0 };
        json_error_t jerr;
        int e;

        if (len > CNI_OUTPUT_MAX)
                return error_set(reterr, EBADMSG, "cni result: %zu bytes, more than %d", len,
                                 CNI_OUTPUT_MAX);
        r.json = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!r.json)
                return error_set(reterr, EBADMSG, "cni result: not JSON: %s", jerr.text);
        if (!json_is_object(r.json)) {
                e = error_set(reterr, EBADMSG, "cni result: not a JSON object");
                goto fail;
        }
        if ((e = opt_string(r.json, "cniVersion", "cni result", &r.cni_version, reterr)) < 0)
                goto fail;
        if (!r.cni_version || !*r.cni_version) {
                e = error_set(reterr, EBADMSG, "cni result: no \"cniVersion\"");
                goto fail;
        }
        if ((e = parse_interfaces(json_object_get(r.json, "interfaces"), &r, reterr)) < 0 ||
            (e = parse_ips(json_object_get(r.json, "ips"), &r, reterr)) < 0 ||
            (e = parse_routes(json_object_get(r.json, "routes"), &r, reterr)) < 0)
                goto fail;
        *ret = r;
        return 0;
fail:
        cni_result_release(&r);
        return e;
}

size_t cni_result_pod_ips(const struct cni_result *r, const char *ifname, const char **ips,
                          size_t max)
{
        static const int families[] = { AF_INET, AF_INET6 };
        size_t n = 0;

        for (size_t f = 0; f < ARRAY_SIZE(families); f++) {
                for (size_t i = 0; i < r->n_ips && n < max; i++) {
                        const struct cni_ip *ip = &r->ips[i];
                        const struct cni_interface *it;

                        if (ip->family != families[f] || ip->interface < 0 ||
                            (size_t) ip->interface >= r->n_interfaces)
                                continue;
                        it = &r->interfaces[ip->interface];
                        if (!streq(it->name, ifname) || !*it->sandbox)
                                continue;
                        ips[n++] = ip->ip;
                        break; /* one per family */
                }
        }
        return n;
}

/* The text up to the first NUL, without surrounding blank lines and spaces, at most 2 KiB;
 * NULL when nothing is left. */
static char *trimmed(const char *s, size_t len)
{
        len = s ? strnlen(s, len) : 0;
        while (len && (s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == ' '))
                len--;
        while (len && (*s == '\n' || *s == ' ')) {
                s++;
                len--;
        }
        if (len > 2048)
                len = 2048;
        return len ? xstrndup(s, len) : NULL;
}

char *cni_error_message(const char *out, size_t out_len, const char *err, size_t err_len,
                        int exit_status, long *ret_code)
{
        cleanup_json json_t *j = NULL;
        const char *msg, *details;
        char *words;

        *ret_code = 0;
        if (out_len && out_len <= CNI_OUTPUT_MAX)
                j = json_loadb(out, out_len, 0, NULL);
        msg = json_string_value(json_object_get(j, "msg"));
        details = json_string_value(json_object_get(j, "details"));
        if (json_is_integer(json_object_get(j, "code")))
                *ret_code = (long) json_integer_value(json_object_get(j, "code"));
        /* K8S: go's types.Error.Error(): msg, then "; details" when there are some */
        if (msg && details && *details)
                return xasprintf("%s; %s", msg, details);
        if (msg && *msg)
                return xstrdup(msg);
        if ((words = trimmed(out, out_len)) || (words = trimmed(err, err_len)))
                return words;
        return xasprintf("exit status %d", exit_status);
}

/* ------------------------------------------------------------------ configuration */

static bool plugin_name_ok(const char *s)
{
        return s && *s && !strchr(s, '/') && !streq(s, ".") && !streq(s, "..") &&
               strlen(s) < NAME_MAX;
}

int cni_conflist_check(const json_t *conflist, struct error **reterr)
{
        const json_t *plugins = json_object_get(conflist, "plugins");
        size_t i;
        json_t *p;

        if (!json_is_object(conflist))
                return error_set(reterr, EINVAL, "cni config: not a JSON object");
        if (!json_is_string(json_object_get(conflist, "cniVersion")))
                return error_set(reterr, EINVAL, "cni config: no \"cniVersion\"");
        if (!json_is_string(json_object_get(conflist, "name")) ||
            !*json_string_value(json_object_get(conflist, "name")))
                return error_set(reterr, EINVAL, "cni config: no \"name\"");
        if (!json_is_array(plugins) || !json_array_size(plugins))
                return error_set(reterr, EINVAL, "cni config: no \"plugins\"");
        json_array_foreach(plugins, i, p) {
                const char *type = json_string_value(json_object_get(p, "type"));
                if (!json_is_object(p) || !plugin_name_ok(type))
                        return error_set(reterr, EINVAL,
                                         "cni config: plugins[%zu] has no valid \"type\"", i);
        }
        return 0;
}

json_t *cni_plugin_config(const json_t *conflist, const json_t *plugin, const json_t *capabilities,
                          const json_t *prev_result)
{
        json_t *c = json_deep_copy(plugin);
        const json_t *declared = json_object_get(plugin, "capabilities");
        json_t *rc = json_object();
        const char *key;
        json_t *v;

        json_object_del(c, "capabilities");
        json_object_set(c, "cniVersion", json_object_get(conflist, "cniVersion"));
        json_object_set(c, "name", json_object_get(conflist, "name"));
        /* only what the plugin declares and the runtime offers (SPEC §3 "Deriving
         * runtimeConfig") */
        json_object_foreach((json_t *) capabilities, key, v) {
                if (json_is_true(json_object_get(declared, key)))
                        json_object_set(rc, key, v);
        }
        if (json_object_size(rc))
                json_object_set_new(c, "runtimeConfig", rc);
        else
                json_decref(rc);
        if (prev_result)
                json_object_set(c, "prevResult", (json_t *) prev_result);
        return c;
}

/* ------------------------------------------------------------------ exec */

static char *find_plugin(const char *cni_path, const char *type)
{
        cleanup_free char *copy = xstrdup(cni_path);
        char *save = NULL;

        for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
                char *p = xasprintf("%s/%s", dir, type);
                if (dir[0] == '/' && access(p, X_OK) == 0)
                        return p;
                free(p);
        }
        return NULL;
}

static bool container_id_ok(const char *s)
{
        if (!s ||
            !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
                return false;
        for (; *s; s++)
                if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '-'))
                        return false;
        return true;
}

/* K8S (libcni pluginDescription): type="bridge", then name="x" when the plugin has one */
static char *plugin_description(const json_t *plugin)
{
        const char *type = json_string_value(json_object_get(plugin, "type"));
        const char *name = json_string_value(json_object_get(plugin, "name"));

        if (name && *name)
                return xasprintf("type=\"%s\" name=\"%s\"", type, name);
        return xasprintf("type=\"%s\"", type);
}

/* One plugin, one command. On ADD *ret (may be NULL otherwise) gets its parsed result. */
static int exec_plugin(const char *cni_path, enum cni_command cmd, const json_t *conflist,
                       const json_t *plugin, const struct cni_attachment *a,
                       const json_t *prev_result, struct cni_result *ret, struct error **reterr)
{
        const char *type = json_string_value(json_object_get(plugin, "type"));
        const char *verb = cmd == CNI_ADD ? "add" : cmd == CNI_DEL ? "delete" : "check";
        cleanup_free char *path = find_plugin(cni_path, type);
        cleanup_free char *input = NULL;
        struct strbuf args;
        struct spawn_options options = { .timeout_ms = CNI_TIMEOUT_MS,
                                         .output_max = CNI_OUTPUT_MAX };
        struct spawn_result o;
        char *argv[] = { NULL, NULL };
        char *env[9];
        size_t n = 0;
        json_t *conf;
        int r;

        cleanup_free char *desc = plugin_description(plugin);

        /* K8S (libcni): `plugin type="bridge" failed (add): ...` */
        if (!path)
                return error_set(reterr, ENOENT,
                                 "plugin %s failed (%s): failed to find plugin \"%s\" in path [%s]",
                                 desc, verb, type, cni_path);
        conf = cni_plugin_config(conflist, plugin, a->capabilities, prev_result);
        input = json_dumps(conf, JSON_COMPACT);
        json_decref(conf);
        strbuf_init(&args);
        for (size_t i = 0; a->args && a->args[i]; i++) {
                if (i)
                        strbuf_addch(&args, ';');
                strbuf_addstr(&args, a->args[i]);
        }
        env[n++] = xasprintf("CNI_COMMAND=%s", cni_command_to_string(cmd));
        env[n++] = xasprintf("CNI_CONTAINERID=%s", a->container_id);
        env[n++] = xasprintf("CNI_NETNS=%s", a->netns ? a->netns : "");
        env[n++] = xasprintf("CNI_IFNAME=%s", a->ifname);
        env[n++] = xasprintf("CNI_ARGS=%s", args.buf);
        env[n++] = xasprintf("CNI_PATH=%s", cni_path);
        /* portmap runs iptables: give it the system's tool path */
        env[n++] = xstrdup("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        env[n] = NULL;
        strbuf_release(&args);
        options.input = input;
        options.input_len = strlen(input);
        argv[0] = path;
        r = spawn_run(path, argv, env, &options, &o, reterr);
        for (size_t i = 0; i < n; i++)
                free(env[i]);
        if (r < 0) {
                error_wrap(reterr, "plugin %s failed (%s)", desc, verb);
                goto out;
        }
        if (o.status != 0) {
                long code;
                cleanup_free char *words = cni_error_message(o.out.buf, o.out.len, o.err.buf,
                                                             o.err.len, o.status, &code);
                r = error_set(reterr, code == 11 ? EAGAIN : EIO, "plugin %s failed (%s): %s", desc,
                              verb, words);
                goto out;
        }
        if (cmd == CNI_ADD && ret) {
                r = cni_result_parse(o.out.buf, o.out.len, ret, reterr);
                if (r < 0)
                        error_wrap(reterr, "plugin %s failed (%s)", desc, verb);
        }
out:
        strbuf_release(&o.out);
        strbuf_release(&o.err);
        return r;
}

static int check_attachment(const json_t *conflist, const struct cni_attachment *a,
                            struct error **reterr)
{
        int r = cni_conflist_check(conflist, reterr);

        if (r < 0)
                return r;
        if (!container_id_ok(a->container_id))
                return error_set(reterr, EINVAL, "cni: bad container id \"%s\"",
                                 a->container_id ? a->container_id : "");
        if (!a->ifname || !*a->ifname || strlen(a->ifname) >= 16)
                return error_set(reterr, EINVAL, "cni: bad interface name");
        return 0;
}

int cni_list_add(const char *cni_path, const json_t *conflist, const struct cni_attachment *a,
                 struct cni_result *ret, struct error **reterr)
{
        const json_t *plugins = json_object_get(conflist, "plugins");
        struct cni_result prev = { 0 };
        size_t i;
        json_t *p;
        int r;

        if ((r = check_attachment(conflist, a, reterr)) < 0)
                return r;
        json_array_foreach(plugins, i, p) {
                struct cni_result res = { 0 };

                r = exec_plugin(cni_path, CNI_ADD, conflist, p, a, prev.json, &res, reterr);
                cni_result_release(&prev);
                if (r < 0)
                        return r;
                prev = res;
        }
        *ret = prev;
        return 0;
}

int cni_list_check(const char *cni_path, const json_t *conflist, const struct cni_attachment *a,
                   const json_t *prev_result, struct error **reterr)
{
        const json_t *plugins = json_object_get(conflist, "plugins");
        size_t i;
        json_t *p;
        int r;

        if ((r = check_attachment(conflist, a, reterr)) < 0)
                return r;
        if (json_is_true(json_object_get(conflist, "disableCheck")))
                return 0;
        json_array_foreach(plugins, i, p) {
                r = exec_plugin(cni_path, CNI_CHECK, conflist, p, a, prev_result, NULL, reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}

int cni_list_del(const char *cni_path, const json_t *conflist, const struct cni_attachment *a,
                 const json_t *prev_result, struct error **reterr)
{
        const json_t *plugins = json_object_get(conflist, "plugins");
        int r;

        if ((r = check_attachment(conflist, a, reterr)) < 0)
                return r;
        for (size_t i = json_array_size(plugins); i-- > 0;) {
                r = exec_plugin(cni_path, CNI_DEL, conflist, json_array_get(plugins, i), a,
                                prev_result, NULL, reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}
